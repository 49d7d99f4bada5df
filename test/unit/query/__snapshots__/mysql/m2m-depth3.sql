select `t1`.`id` as `c0`, (
  select coalesce(json_arrayagg(json_array((
          select coalesce(json_arrayagg(json_array((
                  select json_array(`t4`.`name`) as `v`
                  from `categories` as `t4`
                  where `t4`.`id` = `t3`.`categories_id`))
              order by `t3`.`id`
              limit ?), json_array())
          from `articles_categories` as `t3`
          where `t3`.`articles_id` = `t2`.`id`))
      order by `t2`.`id`
      limit ?), json_array())
  from `articles` as `t2`
  where `t2`.`author` = `t1`.`id`) as `c1`
from `authors` as `t1`
order by `t1`.`id`
limit ?
-- values: [100,100,100]
